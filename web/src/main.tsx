import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./App";
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

// Before the first render: a deep link's lineage answer is requested and the layout worker
// loads (on its own thread) while React and the page's code start.
layoutWorker();
if (getToken()) {
  const route = parseRoute(window.location.hash);
  if (route.page === "lineage") prefetchLineage(route);
}

const root = document.getElementById("root");
if (!root) throw new Error("index.html has no #root element");
createRoot(root).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
