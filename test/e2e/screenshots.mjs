// Takes the README's screenshots from the real editor (VS Code server + headless chromium), from the current code:
//   docs/images/codelens.png   verdict and action lenses on an agent file (.github/instructions/*.instructions.md)
//   docs/images/hover.png      a section verdict hover on a heading of that file
//   docs/images/fence.png      a converted section: the ```toon fence with its savings and Revert lenses
//   docs/images/problems.png   the Problems panel with markdown and agent-JSON diagnostics
//   docs/images/quickfix.png   report diagnostics with the quick-fix menu open
//   docs/images/agent-context.png  the Agent Context view and the first-line lens, on the mixed context fixture
// E2E_SCREENSHOTS=agent-context,quickfix takes only the groups that make those images.
import path from 'node:path';
import fs from 'node:fs';

async function openEditor(ctx, browser, ws, rel) {
  const page = await browser.newPage({ viewport: { width: 1400, height: 860 } });
  const url = ctx.workbenchUrl(ctx.server.url, ws, [
    ['extensionDevelopmentPath', ctx.remoteUri(ctx.server.url, ctx.repo)],
    ['openFile', ctx.remoteUri(ctx.server.url, path.join(ws, rel))],
    ['skipWelcome', 'true'], ['skipReleaseNotes', 'true'],
  ]);
  await page.goto(url, { waitUntil: 'domcontentloaded', timeout: 60000 });
  await page.locator('.part.editor .monaco-editor .view-lines').first().waitFor({ timeout: 60000 });
  return page;
}

const editorText = (page, text, timeout = 60000) =>
  page.waitForFunction((t) => [...document.querySelectorAll('.part.editor .monaco-editor')]
    .some((r) => r.innerText.replace(/\u00a0/g, ' ').includes(t)), text, { timeout, polling: 250 });

/** Puts the cursor at (line, column) through the Go to Line quick input (1-based). */
async function goTo(page, line, column) {
  await page.locator('.part.editor .monaco-editor .view-lines').first().click();
  await page.keyboard.press('Control+G');
  await page.keyboard.type(`${line}:${column}`);
  await page.keyboard.press('Enter');
  await page.waitForTimeout(300);
}

export async function takeReadmeScreenshots(ctx) {
  const out = path.join(ctx.repo, 'docs', 'images');
  fs.mkdirSync(out, { recursive: true });
  const only = process.env.E2E_SCREENSHOTS?.split(',');
  const wanted = (...names) => !only || names.some((n) => only.includes(n));
  const browser = await ctx.launchBrowser();
  try {
    if (wanted('codelens', 'hover', 'fence', 'problems')) {
      const ws = ctx.freshWorkspace();
      const rel = '.github/instructions/services.instructions.md';
      const page = await openEditor(ctx, browser, ws, rel);
      await editorText(page, 'Convert to TOON');
      await page.waitForTimeout(800);
      await page.screenshot({ path: path.join(out, 'codelens.png') });
      ctx.lap('screenshot docs/images/codelens.png');
      const lines = fs.readFileSync(path.join(ws, rel), 'utf8').split('\n');
      await goTo(page, lines.findIndex((l) => l.startsWith('## Ports')) + 1, 5);
      await page.keyboard.press('Control+K');
      await page.keyboard.press('Control+I');
      await page.locator('.monaco-hover').first().waitFor({ timeout: 20000 });
      await page.waitForTimeout(800);
      await page.screenshot({ path: path.join(out, 'hover.png') });
      ctx.lap('screenshot docs/images/hover.png');
      await page.keyboard.press('Escape');
      await page.locator('.codelens-decoration a', { hasText: /^Convert to TOON$/ }).first().click();
      await editorText(page, 'Revert to Markdown');
      await page.waitForTimeout(800);
      await page.screenshot({ path: path.join(out, 'fence.png') });
      ctx.lap('screenshot docs/images/fence.png');
      await page.keyboard.press('Control+Z');
      await page.keyboard.press('Control+P');
      await page.keyboard.type('bad.verdict.json');
      await page.waitForTimeout(800);
      await page.keyboard.press('Enter');
      await page.locator('.squiggly-error').first().waitFor({ timeout: 60000 });
      await page.keyboard.press('Control+Shift+M');
      await page.locator('.markers-panel').first().waitFor({ timeout: 20000 });
      await page.waitForTimeout(1200);
      await page.screenshot({ path: path.join(out, 'problems.png') });
      ctx.lap('screenshot docs/images/problems.png');
      await page.close();
    }
    if (wanted('quickfix')) {
      const ws = ctx.freshWorkspace();
      const rel = 'docs/hygiene-report.json';
      const page = await openEditor(ctx, browser, ws, rel);
      await page.locator('.squiggly-error').first().waitFor({ timeout: 60000 });
      const text = fs.readFileSync(path.join(ws, rel), 'utf8').split('\n');
      const line = text.findIndex((l) => l.includes('"safety_tier"')) + 1;
      await goTo(page, line, text[line - 1].indexOf('"confirm"') + 3);
      await page.waitForTimeout(1500); // let the code actions of the diagnostic arrive
      await page.keyboard.press('F1');
      await page.keyboard.type('Quick Fix');
      await page.waitForTimeout(500);
      await page.keyboard.press('Enter');
      await page.locator('.action-widget').first().waitFor({ timeout: 20000 }).catch(async (e) => {
        await page.screenshot({ path: path.join(out, 'quickfix-fail.png') });
        throw e;
      });
      await page.waitForTimeout(800);
      await page.screenshot({ path: path.join(out, 'quickfix.png') });
      ctx.lap('screenshot docs/images/quickfix.png');
      await page.close();
    }
    if (wanted('agent-context')) {
      // The mixed context fixture as a folder of its own (its agent files at the root, as the fixture has them).
      const ws = ctx.contextWorkspace();
      const page = await openEditor(ctx, browser, ws, 'CLAUDE.md');
      await editorText(page, 'loaded by Claude Code');
      const palette = async (command) => {
        await page.keyboard.press('F1');
        await page.keyboard.type(command);
        await page.waitForTimeout(500);
        await page.keyboard.press('Enter');
        await page.waitForTimeout(300);
      };
      // Room for the view and the whole lens line: no secondary side bar, the folder tree folded, a wider side bar.
      if (await page.locator('.part.auxiliarybar').isVisible()) await palette('View: Hide Secondary Side Bar');
      await palette('ToonLens: Show Agent Context');
      await page.locator('.pane-header', { hasText: path.basename(ws) }).first().click();
      const side = await page.locator('.part.sidebar').boundingBox();
      if (side) {
        await page.mouse.move(side.x + side.width, side.y + side.height / 2);
        await page.mouse.down();
        await page.mouse.move(side.x + side.width + 190, side.y + side.height / 2, { steps: 8 });
        await page.mouse.up();
        await page.mouse.move(side.x + side.width + 600, side.y + side.height - 40);
      }
      await page.waitForFunction(() => [...document.querySelectorAll('.monaco-list-row')].some((r) => r.innerText.includes('Codex')), null, { timeout: 60000, polling: 250 });
      await page.waitForTimeout(1200);
      await page.screenshot({ path: path.join(out, 'agent-context.png') });
      ctx.lap('screenshot docs/images/agent-context.png');
      await page.close();
    }
  } finally {
    await browser.close().catch(() => {});
  }
}
