/** Constants of the build, replaced by Vite (`define` in vite.config.ts). */

/** True in the benchmark build only: the performance marks of graph/perf.ts are compiled in. */
declare const __PROVGRAPH_PERF__: boolean;
