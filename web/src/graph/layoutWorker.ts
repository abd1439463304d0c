/** The browser's layout runner: dagre in a Web Worker, started when first asked. */

import type { Point } from "./focus";
import type { LayoutInput, LayoutRunner } from "./layout";

interface Reply {
  id: number;
  positions?: Record<string, Point>;
  error?: string;
}

let runner: LayoutRunner | null = null;

/** The shared worker-backed runner (the app asks for it at start-up, so the worker is ready). */
export function layoutWorker(): LayoutRunner {
  if (runner) return runner;
  const worker = new Worker(new URL("./layout.worker.ts", import.meta.url), { type: "module" });
  const waiting = new Map<number, { resolve: (p: Record<string, Point>) => void; reject: (e: Error) => void }>();
  let next = 0;
  worker.onmessage = (event: MessageEvent<Reply>) => {
    const { id, positions, error } = event.data;
    const entry = waiting.get(id);
    if (!entry) return;
    waiting.delete(id);
    if (positions) entry.resolve(positions);
    else entry.reject(new Error(`layout failed: ${error ?? "no answer"}`));
  };
  worker.onerror = (event) => {
    for (const entry of waiting.values()) entry.reject(new Error(`layout worker failed: ${event.message}`));
    waiting.clear();
  };
  runner = {
    layout(input: LayoutInput, drawn?: Record<string, Point>) {
      const id = next++;
      return new Promise((resolve, reject) => {
        waiting.set(id, { resolve, reject });
        worker.postMessage({ id, input, drawn });
      });
    },
  };
  return runner;
}
