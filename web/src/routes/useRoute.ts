import { useEffect, useState } from "react";
import { formatRoute, parseRoute, type Route } from "./route";

/** The current route, following `hashchange`. */
export function useRoute(): Route {
  const [route, setRoute] = useState<Route>(() => parseRoute(window.location.hash));
  useEffect(() => {
    const update = () => setRoute(parseRoute(window.location.hash));
    window.addEventListener("hashchange", update);
    return () => window.removeEventListener("hashchange", update);
  }, []);
  return route;
}

/** Go to `route` (a new history entry, so Back works). */
export function navigate(route: Route): void {
  window.location.hash = formatRoute(route);
}

/** Replace the current route's hash (for controls that refine the same page). */
export function replaceRoute(route: Route): void {
  const hash = formatRoute(route);
  if (hash !== window.location.hash) {
    window.history.replaceState(null, "", hash);
    window.dispatchEvent(new HashChangeEvent("hashchange"));
  }
}
