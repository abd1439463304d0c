import { useEffect, useState } from "react";
import { request } from "../api/client";
import { knownProjects, loadProjects, onProjects } from "../api/projects";
import { PROJECTS_QUERY } from "../api/queries";

/** The projects the token may read (the API's `projects`, asked once per sign-in). */
export function useProjects(): string[] {
  const [projects, setProjects] = useState(knownProjects);
  useEffect(() => {
    const stop = onProjects(setProjects);
    loadProjects(() => request(PROJECTS_QUERY));
    setProjects(knownProjects());
    return stop;
  }, []);
  return projects;
}

/** A project select: every project the token may read, plus "all". */
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
