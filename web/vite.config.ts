/// <reference types="vitest" />
import { resolve } from "node:path";
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

/**
 * The explorer is served by the query service under /ui, next to /graphql. `vite build` makes
 * the shipped build; `vite build --mode benchmark` (`npm run build:bench`) the benchmark's,
 * the only one with the performance marks of src/graph/perf.ts compiled in.
 */
export default defineConfig(({ mode }) => ({
  base: "/ui/",
  plugins: [react()],
  define: {
    __PROVGRAPH_PERF__: JSON.stringify(mode === "benchmark"),
  },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    chunkSizeWarningLimit: 3000,
    rollupOptions: {
      input: {
        main: resolve(__dirname, "index.html"),
        graphiql: resolve(__dirname, "graphiql.html"),
      },
    },
  },
  worker: { format: "es" as const },
  server: {
    // `npm run dev` forwards /graphql to a query service on PROVGRAPH_QUERY_URL.
    proxy: { "/graphql": process.env.PROVGRAPH_QUERY_URL ?? "http://127.0.0.1:8000" },
  },
  test: {
    include: ["src/**/*.test.ts", "src/**/*.test.tsx"],
    environment: "node" as const,
  },
}));
