import { GraphiQL, type GraphiQLProps } from "graphiql";
import "graphiql/graphiql.css";
import { StrictMode, useMemo, useRef, useState } from "react";
import { createRoot } from "react-dom/client";
import { clearToken, getToken, setToken } from "../api/auth";
import { tokenFetcher } from "./fetcher";

/** GraphiQL over /graphql, with a token field (kept in sessionStorage, sent as a header). */
function Explorer() {
  const [token, setTokenState] = useState(getToken() ?? "");
  const current = useRef(token);
  current.current = token;
  // GraphiQL's type names an answer's errors GraphQLError objects; what it is handed, and all
  // it reads, is their JSON form as the service sent it.
  const fetcher = useMemo(() => tokenFetcher(() => current.current || null) as GraphiQLProps["fetcher"], []);
  const change = (value: string) => {
    setTokenState(value);
    if (value.trim()) setToken(value);
    else clearToken();
  };
  return (
    <div style={{ display: "flex", flexDirection: "column", height: "100vh" }}>
      <form
        onSubmit={(e) => e.preventDefault()}
        style={{ display: "flex", gap: 8, alignItems: "center", padding: "6px 10px", fontFamily: "sans-serif", borderBottom: "1px solid #ccc" }}
      >
        <a href={import.meta.env.BASE_URL}>← explorer</a>
        <label htmlFor="graphiql-token">provgraph token</label>
        <input
          id="graphiql-token"
          type="password"
          autoComplete="off"
          value={token}
          onChange={(e) => change(e.target.value)}
          style={{ flex: 1, maxWidth: 480 }}
          placeholder="paste a token; it is sent as Authorization: Bearer …"
        />
        <span>
          {token ? "token set: press the re-fetch schema button (↻, left) to load the schema" : "no token: requests will be refused"}
        </span>
      </form>
      <div style={{ flex: 1, minHeight: 0 }}>
        <GraphiQL fetcher={fetcher} shouldPersistHeaders={false} isHeadersEditorEnabled={false} />
      </div>
    </div>
  );
}

const root = document.getElementById("graphiql");
if (!root) throw new Error("graphiql.html has no #graphiql element");
createRoot(root).render(
  <StrictMode>
    <Explorer />
  </StrictMode>,
);
