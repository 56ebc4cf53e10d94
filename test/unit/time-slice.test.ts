/**
 * The time slicer's pause between turns: work a request waits for lets the event loop turn once, background work
 * (BACKGROUND_PAUSE_TURNS) that many times, so a burst of queued messages passes before it goes on.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BACKGROUND_PAUSE_TURNS, TURN_MS, runSliced } from '../../server/src/lsp/timeSlice';

/** How many turns of a chain of setImmediate callbacks (one a turn, as the connection reads its queue) run between the first two turns of the work. */
async function loopTurnsBetweenTurns(pauseTurns?: number): Promise<number> {
  let chain = 0;
  let stop = false;
  const tick = () => {
    chain++;
    if (!stop) setImmediate(tick);
  };
  const marks: number[] = [];
  function* steps(): Generator<void, void, void> {
    for (let turn = 0; turn < 2; turn++) {
      marks.push(chain);
      // One step longer than a turn: each step is a turn of its own.
      const until = performance.now() + TURN_MS + 1;
      while (performance.now() < until);
      yield;
    }
  }
  setImmediate(tick);
  await runSliced(steps(), () => undefined, undefined, pauseTurns);
  stop = true;
  return marks[1]! - marks[0]!;
}

test('interactive work pauses one turn of the loop; background work lets a burst through', async () => {
  assert.equal(await loopTurnsBetweenTurns(), 1);
  const background = await loopTurnsBetweenTurns(BACKGROUND_PAUSE_TURNS);
  assert.ok(background >= BACKGROUND_PAUSE_TURNS, `${background} turns of the loop`);
});
