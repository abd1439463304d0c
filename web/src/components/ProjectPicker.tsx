import { useEffect, useState } from "react";
import { request } from "../api/client";
import { knownProjects, onProjects, rememberProjects } from "../api/projects";
import { PROJECTS_QUERY } from "../api/queries";
import type { ProjectsAnswer } from "../api/types";

let asked = false;

/** Ask once per page load for the projects of the readable experiments, datasets and models. */
function discover(): void {
  if (asked) return;
  asked = true;
  request<ProjectsAnswer>(PROJECTS_QUERY)
    .then(rememberProjects)
    .catch(() => {
      asked = false;
    });
}

/** The projects seen so far, updating as answers arrive. */
export function useProjects(): string[] {
  const [projects, setProjects] = useState(knownProjects);
  useEffect(() => {
    discover();
    return onProjects(setProjects);
  }, []);
  return projects;
}

/** A project select: every project the token has been seen to read, plus "all". */
export function ProjectPicker({
  value,
  onChange,
  id,
  allLabel = "All projects",
}: {
  value: string;
  onChange: (project: string) => void;
  id: string;
  allLabel?: string;
}) {
  const projects = useProjects();
  const options = value && !projects.includes(value) ? [...projects, value] : projects;
  return (
    <select id={id} value={value} onChange={(e) => onChange(e.target.value)}>
      <option value="">{allLabel}</option>
      {options.map((p) => (
        <option key={p} value={p}>
          {p}
        </option>
      ))}
    </select>
  );
}
