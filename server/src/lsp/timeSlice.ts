/**
 * Time slicing for work that must not block the server's only thread: a step generator is run in
 * turns of at most {@link TURN_MS}, and between turns the event loop runs (setImmediate), so the
 * connection reads and answers other requests while a large document is being analysed.
 */
import { LSPErrorCodes, ResponseError, type CancellationToken } from 'vscode-languageserver/node';
import { recordTurn } from '../testing/turnTrace';

/** Longest uninterrupted turn of sliced work. */
export const TURN_MS = 15;

/** The answer to a request whose token fired (`$/cancelRequest`): RequestCancelled (-32800). */
export function requestCancelled(): ResponseError<void> {
  return new ResponseError(LSPErrorCodes.RequestCancelled, 'Request cancelled');
}

/** The answer when the document changed while the request waited: ContentModified (-32801); clients ask again. */
export function contentModified(): ResponseError<void> {
  return new ResponseError(LSPErrorCodes.ContentModified, 'The document changed while it was being analysed');
}

/** Whether an error only says that a request was cancelled or outdated (not a failure worth logging). */
export function isCancellation(err: unknown): boolean {
  return err instanceof ResponseError && (err.code === LSPErrorCodes.RequestCancelled || err.code === LSPErrorCodes.ContentModified);
}

/** Resolves on the next turn of the event loop, after pending I/O. */
export const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Turns of the event loop between two turns of background work: the connection handles one queued message per
 * turn of the loop, so a burst of requests (the lens resolves of a screen) passes before the work goes on.
 */
export const BACKGROUND_PAUSE_TURNS = 32;

/**
 * Runs `steps` to its end in turns of at most TURN_MS. Before each turn `stop()` is asked;
 * when it answers an error, the generator is closed and the promise rejects with that error.
 * `onTurn` sees the last value yielded before each pause (progress). Work no request waits for passes
 * `pauseTurns` ({@link BACKGROUND_PAUSE_TURNS}): between its turns the event loop turns that many times.
 */
export async function runSliced<T, P>(steps: Generator<P, T, void>, stop: () => Error | undefined, onTurn?: (progress: P) => void, pauseTurns = 1): Promise<T> {
  for (;;) {
    const start = performance.now();
    const deadline = start + TURN_MS;
    let r = steps.next();
    while (!r.done && performance.now() < deadline) r = steps.next();
    recordTurn(performance.now() - start);
    if (r.done) return r.value;
    onTurn?.(r.value);
    for (let i = 0; i < pauseTurns; i++) await nextTurn();
    const err = stop();
    if (err) {
      steps.return(undefined as T);
      throw err;
    }
  }
}

/** Waits for `p`, or rejects with RequestCancelled as soon as `token` fires. */
export function untilCancelled<T>(p: Promise<T>, token: CancellationToken | undefined): Promise<T> {
  if (!token) return p;
  if (token.isCancellationRequested) return Promise.reject(requestCancelled());
  return new Promise<T>((resolve, reject) => {
    const sub = token.onCancellationRequested(() => {
      sub.dispose();
      reject(requestCancelled());
    });
    p.then(
      (v) => {
        sub.dispose();
        resolve(v);
      },
      (e) => {
        sub.dispose();
        reject(e);
      },
    );
  });
}
