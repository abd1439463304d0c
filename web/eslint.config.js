// ESLint (flat config): typescript-eslint's recommended rules and React's rules of hooks on the
// explorer's sources. `npm run lint` runs it after codegen's check and tsc.
import js from "@eslint/js";
import reactHooks from "eslint-plugin-react-hooks";
import globals from "globals";
import tseslint from "typescript-eslint";

export default tseslint.config(
  // Written by GraphQL Code Generator (codegen.ts), and the build's output.
  { ignores: ["dist/", "src/api/generated.ts"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ["**/*.{ts,tsx}"],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { "react-hooks": reactHooks },
    rules: {
      "react-hooks/rules-of-hooks": "error",
      "react-hooks/exhaustive-deps": "error",
    },
  },
  {
    files: ["*.{js,ts}"],
    languageOptions: { globals: { ...globals.node } },
  },
);
