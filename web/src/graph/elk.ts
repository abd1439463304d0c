/** The ELK instance of the browser: layout runs in a Web Worker, off the main thread. */

import ELK from "elkjs/lib/elk-api";
import workerUrl from "elkjs/lib/elk-worker.min.js?url";
import { warmUpGraph, type ElkLike } from "./layout";

/** Synthetic graph sizes laid out when the worker starts, while nothing real is asked. */
const WARM_UP_SIZES = [40, 120, 250];

let instance: ElkLike | null = null;

/**
 * The shared worker-backed ELK. Made when first asked (the app asks at start-up), it lays
 * out growing synthetic graphs so its code is optimised before the first real layout; the
 * warm-up stops as soon as a real layout is asked (the worker runs one layout at a time).
 */
export function elk(): ElkLike {
  if (instance) return instance;
  const worker = new ELK({ workerFactory: () => new Worker(workerUrl) });
  let asked = false;
  const warm = (i: number): void => {
    if (asked || i >= WARM_UP_SIZES.length) return;
    worker.layout(warmUpGraph(WARM_UP_SIZES[i])).then(
      () => warm(i + 1),
      () => undefined,
    );
  };
  warm(0);
  instance = {
    layout(graph) {
      asked = true;
      return worker.layout(graph);
    },
  };
  return instance;
}
