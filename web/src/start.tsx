/** The app itself, loaded by main.tsx once a deep link's lineage request is under way. */

import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./App";

/** Render the explorer into `root`. */
export function start(root: HTMLElement): void {
  createRoot(root).render(
    <StrictMode>
      <App />
    </StrictMode>,
  );
}
