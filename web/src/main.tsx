import { getToken } from "./api/auth";
import { layoutWorker } from "./graph/layoutWorker";
import { prefetchLineage } from "./graph/lineageRequest";
import { parseRoute } from "./routes/route";
import "./styles.css";

declare global {
  interface Window {
    /** Timings for the browser benchmark (see graph/perf.ts). */
    __provgraphPerf?: Record<string, number | null>;
  }
}

// First, before React and the pages are even loaded: a deep link's lineage answer is asked
// for and the layout worker starts (on its own thread). This entry imports no React, so it
// runs as soon as its own small chunk arrives; the app follows (start.tsx).
layoutWorker();
if (getToken()) {
  const route = parseRoute(window.location.hash);
  if (route.page === "lineage") prefetchLineage(route);
}

const root = document.getElementById("root");
if (!root) throw new Error("index.html has no #root element");
import("./start")
  .then(({ start }) => start(root))
  .catch((e: unknown) => {
    root.textContent = `The explorer's code could not be loaded (${e instanceof Error ? e.message : String(e)}). Reload the page; if the service was updated meanwhile, the new version loads.`;
  });
