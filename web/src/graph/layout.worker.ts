/** The layout worker: lays out one graph per message, off the page's main thread. */

import { layoutPositions, type LayoutInput } from "./layout";

interface Request {
  id: number;
  input: LayoutInput;
}

self.onmessage = (event: MessageEvent<Request>) => {
  const { id, input } = event.data;
  try {
    self.postMessage({ id, positions: layoutPositions(input) });
  } catch (e) {
    self.postMessage({ id, error: e instanceof Error ? e.message : String(e) });
  }
};
