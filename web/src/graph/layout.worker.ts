/** The layout worker: lays out one graph per message, off the page's main thread. */

import type { Point } from "./focus";
import { layoutPositions, placeAdded, type LayoutInput } from "./layout";

interface Request {
  id: number;
  input: LayoutInput;
  /** Positions already drawn: only the other nodes are placed. */
  drawn?: Record<string, Point>;
}

/**
 * A graph of four nodes laid out as the worker starts, while the page's lineage request is on
 * its way: dagre's code is compiled by then, and the first real layout runs without that cost
 * (about a fifth of a 200-node layout, measured in docs/performance.md).
 */
const WARM_UP: LayoutInput = {
  nodes: ["a", "b", "c", "d"],
  edges: [
    ["a", "b"],
    ["b", "c"],
    ["a", "c"],
    ["a", "d"],
  ],
};
layoutPositions(WARM_UP);

self.onmessage = (event: MessageEvent<Request>) => {
  const { id, input, drawn } = event.data;
  try {
    self.postMessage({ id, positions: drawn ? placeAdded(input, drawn) : layoutPositions(input) });
  } catch (e) {
    self.postMessage({ id, error: e instanceof Error ? e.message : String(e) });
  }
};
