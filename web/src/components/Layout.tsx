import type { ReactNode } from "react";
import { navigate } from "../routes/useRoute";
import { ProjectPicker } from "./ProjectPicker";

/** The frame of every signed-in page: navigation, project picker, sign-out. */
export function Layout({ children, onSignOut }: { children: ReactNode; onSignOut: () => void }) {
  return (
    <>
      <header className="top">
        <a className="brand" href="#/search">
          provgraph
        </a>
        <nav aria-label="Main">
          <a href="#/search">Search</a>
          <a href={`${import.meta.env.BASE_URL}graphiql.html`}>GraphiQL</a>
        </nav>
        <label className="project-jump">
          <span>Project</span>
          <ProjectPicker
            id="project-jump"
            value=""
            allLabel="Go to a project…"
            onChange={(project) => project && navigate({ page: "search", q: "", type: "", project })}
          />
        </label>
        <button type="button" onClick={onSignOut}>
          Sign out
        </button>
      </header>
      <main className="page">{children}</main>
    </>
  );
}
