import type { CodegenConfig } from "@graphql-codegen/cli";

/**
 * The answer and variable types of every document in src/api/queries.ts, generated from
 * schema.graphql into src/api/generated.ts (`npm run codegen`; `npm run build` regenerates it,
 * `npm run lint` fails while it is stale). A schema change that a page's document or its
 * reading of the answer no longer fits fails the build.
 */
const config: CodegenConfig = {
  overwrite: true,
  schema: "schema.graphql",
  documents: ["src/api/queries.ts"],
  generates: {
    "src/api/generated.ts": {
      plugins: ["typescript-operations"],
      config: {
        useTypeImports: true,
        enumsAsTypes: true,
        scalars: { JSON: "./scalars#Json", Long: "number" },
        strictScalars: true,
        inlineFragmentTypes: "combine",
        avoidOptionals: { field: true, inputValue: false, object: true },
      },
    },
  },
};

export default config;
