/** The layout worker: lays out one graph per message, off the page's main thread. */

import type { Point } from "./focus";
import { layoutPositions, placeAdded, type LayoutInput } from "./layout";

interface Request {
  id: number;
  input: LayoutInput;
  /** Positions already drawn: only the other nodes are placed. */
  drawn?: Record<string, Point>;
}

self.onmessage = (event: MessageEvent<Request>) => {
  const { id, input, drawn } = event.data;
  try {
    self.postMessage({ id, positions: drawn ? placeAdded(input, drawn) : layoutPositions(input) });
  } catch (e) {
    self.postMessage({ id, error: e instanceof Error ? e.message : String(e) });
  }
};
