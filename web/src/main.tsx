import { getToken } from "./api/auth";
import { layoutWorker } from "./graph/layoutWorker";
import { prefetchRoute } from "./graph/lineageRequest";
import { parseRoute } from "./routes/route";
import "./styles.css";

/** Ask for the current route's lineage answer, when it is a lineage route and there is a token. */
function prefetch(): void {
  if (getToken()) prefetchRoute(parseRoute(window.location.hash));
}

// First, before React and the pages are even loaded: a deep link's lineage answer is asked
// for and the layout worker starts (on its own thread). This entry imports no React, so it
// runs as soon as its own small chunk arrives; the app follows (start.tsx). Each navigation
// to a lineage route asks for its answer here too: this listener comes before the app's, so
// the request is under way before the new route renders.
layoutWorker();
prefetch();
window.addEventListener("hashchange", prefetch);

const root = document.getElementById("root");
if (!root) throw new Error("index.html has no #root element");
import("./start")
  .then(({ start }) => start(root))
  .catch((e: unknown) => {
    root.textContent = `The explorer's code could not be loaded (${e instanceof Error ? e.message : String(e)}). Reload the page; if the service was updated meanwhile, the new version loads.`;
  });
