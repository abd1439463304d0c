/**
 * Marks for the browser benchmark: `performance.mark('lineage-drawn')` once every node of a
 * lineage answer is in the DOM, `performance.mark('expand-painted')` once an expand is painted.
 * The same timings (ms since navigation start) are copied to `window.__provgraphPerf`, with the
 * page's own fetch and layout times.
 *
 * They exist in the benchmark build only (`npm run build:bench`, Vite's `benchmark` mode sets
 * `__PROVGRAPH_PERF__`): every caller asks `PERF_MARKS` first, so in the shipped build, where
 * it is false, the bundler drops the calls and this module with them.
 */

declare global {
  interface Window {
    /** Timings for the browser benchmark. */
    __provgraphPerf?: Record<string, number | null>;
  }
}

/** Whether this build sets the benchmark's marks (a constant of the build: see vite.config.ts). */
export const PERF_MARKS: boolean = __PROVGRAPH_PERF__;

function timings(): Record<string, number | null> {
  return (window.__provgraphPerf ??= {});
}

/** Keep a timing (ms) of the page's own under `name` in `window.__provgraphPerf`. */
export function noteTiming(name: string, ms: number): void {
  timings()[name] = ms;
}

function record(name: string, extra: Record<string, number>): void {
  performance.mark(name);
  const perf = timings();
  perf[name] = performance.now();
  Object.assign(perf, extra);
}

/** Call `then` once `count` nodes are in the DOM (checked each frame, for at most 60 s). */
function whenDrawn(count: number, then: () => void): () => void {
  let frame = 0;
  const started = performance.now();
  const check = () => {
    const drawn = document.querySelectorAll("[data-node-id]").length;
    if (drawn >= count) then();
    else if (performance.now() - started < 60_000) frame = requestAnimationFrame(check);
  };
  frame = requestAnimationFrame(check);
  return () => cancelAnimationFrame(frame);
}

/** Mark `lineage-drawn` when the answer's `count` nodes are drawn. */
export function markLineageDrawn(count: number, requestedAt: number): () => void {
  return whenDrawn(count, () => record("lineage-drawn", { lineageNodes: count, lineageMs: performance.now() - requestedAt }));
}

/** Mark `expand-painted` after the expanded graph is drawn and one more frame is painted. */
export function markExpandPainted(count: number, requestedAt: number): () => void {
  let inner = 0;
  const cancel = whenDrawn(count, () => {
    inner = requestAnimationFrame(() =>
      record("expand-painted", { expandNodes: count, expandMs: performance.now() - requestedAt }),
    );
  });
  return () => {
    cancel();
    cancelAnimationFrame(inner);
  };
}
