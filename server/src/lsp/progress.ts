/**
 * Server-initiated `$/progress` for long background work (window/workDoneProgress/create, then begin,
 * report, end), or nothing when the client did not advertise `window.workDoneProgress`. The create request
 * is not awaited by the work: when the work ends first, the progress never begins (or ends at once).
 */
import type { WorkDoneProgressServerReporter } from 'vscode-languageserver/node';
import type { FeatureContext } from './feature';
import { errorMessage } from '../core/errors';

export interface BackgroundProgress {
  /** A percentage (0–100) and a message; repeated percentages are not sent again. */
  report(percentage: number, message?: string): void;
  /** Ends the progress (idempotent). */
  done(): void;
}

export type ProgressContext = Pick<FeatureContext, 'createWorkDoneProgress' | 'clientCapabilities' | 'log'>;

export function beginBackgroundProgress(ctx: ProgressContext | undefined, title: string, message?: string): BackgroundProgress | undefined {
  if (!ctx?.clientCapabilities.window?.workDoneProgress) return undefined;
  let handle: WorkDoneProgressServerReporter | undefined;
  let finished = false;
  let last = -1;
  ctx.createWorkDoneProgress().then(
    (h) => {
      if (finished) return;
      handle = h;
      h.begin(title, 0, message, false);
    },
    (err: unknown) => ctx.log.warn(`window/workDoneProgress/create failed: ${errorMessage(err)}`),
  );
  return {
    report(percentage, msg) {
      const pct = Math.floor(percentage);
      if (!handle || finished || pct === last) return;
      last = pct;
      if (msg === undefined) handle.report(pct);
      else handle.report(pct, msg);
    },
    done() {
      if (finished) return;
      finished = true;
      handle?.done();
    },
  };
}

/** The file name of a document URI, for progress titles (`big.report.json`). */
export function shortName(uri: string): string {
  const path = uri.replace(/[?#].*$/, '');
  const name = path.slice(path.lastIndexOf('/') + 1);
  try {
    return decodeURIComponent(name) || uri;
  } catch {
    return name || uri; // a malformed escape: shown as written
  }
}
