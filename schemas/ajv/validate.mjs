// Checks provgraph events against the contract's JSON Schemas with ajv (draft 2020-12 and
// ajv-formats, default options), as a producer written in JavaScript would.
//
//   node schemas/ajv/validate.mjs EVENT.json ...
//       one verdict per file ("valid", or "invalid" and ajv's errors); exit code 1 when a file
//       is invalid, 2 when one cannot be read
//   node schemas/ajv/validate.mjs --json < REQUEST.json
//       REQUEST: {"events": [event, ...], "patterns": [pattern, ...], "strings": [text, ...]};
//       answers {"events": [{"valid": bool, "errors": [text, ...]}, ...],
//                "patterns": [[does strings[j] match patterns[i], ...], ...]}
//
// --schemas DIR reads the schemas from DIR (default: schemas/jsonschema beside this folder).
// An event is checked against the schema of its event_type and schema_version, by `$id`.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

const SCHEMA_BASE_URL = "https://provgraph.dev/schemas";
const here = path.dirname(fileURLToPath(import.meta.url));

function newAjv(schemaDir) {
  const ajv = new Ajv2020({ allErrors: true });
  addFormats(ajv);
  for (const name of fs.readdirSync(schemaDir).filter((n) => n.endsWith(".json")).sort()) {
    ajv.addSchema(JSON.parse(fs.readFileSync(path.join(schemaDir, name), "utf8")));
  }
  return ajv;
}

function check(ajv, event) {
  const known = event !== null && typeof event === "object" && !Array.isArray(event);
  const id = known && `${SCHEMA_BASE_URL}/${event.event_type}/v${event.schema_version}.json`;
  const validate = id && ajv.getSchema(id);
  if (!validate) {
    const what = known ? `${event.event_type} v${event.schema_version}` : "a non-object";
    return { valid: false, errors: [`no schema for ${what}`] };
  }
  const valid = validate(event);
  const errors = (validate.errors ?? []).map((e) => `${e.instancePath || "/"}: ${e.message}`);
  return { valid, errors };
}

function answer(ajv, request) {
  const events = (request.events ?? []).map((event) => check(ajv, event));
  const strings = request.strings ?? [];
  const patterns = (request.patterns ?? []).map((pattern) => {
    const matches = ajv.compile({ type: "string", pattern });
    return strings.map((text) => matches(text));
  });
  return { events, patterns };
}

function main(argv) {
  let schemaDir = path.join(here, "..", "jsonschema");
  const at = argv.indexOf("--schemas");
  if (at >= 0) {
    schemaDir = argv[at + 1];
    argv.splice(at, 2);
  }
  const ajv = newAjv(schemaDir);
  if (argv[0] === "--json") {
    const request = JSON.parse(fs.readFileSync(0, "utf8"));
    process.stdout.write(JSON.stringify(answer(ajv, request)) + "\n");
    return 0;
  }
  if (argv.length === 0) {
    process.stderr.write("usage: node validate.mjs [--schemas DIR] EVENT.json ... | --json\n");
    return 2;
  }
  let status = 0;
  for (const file of argv) {
    let event;
    try {
      event = JSON.parse(fs.readFileSync(file, "utf8"));
    } catch (error) {
      process.stderr.write(`${file}: cannot read: ${error.message}\n`);
      status = 2;
      continue;
    }
    const { valid, errors } = check(ajv, event);
    process.stdout.write(`${file}: ${valid ? "valid" : "invalid"}\n`);
    for (const error of errors) process.stdout.write(`  ${error}\n`);
    if (!valid) status = Math.max(status, 1);
  }
  return status;
}

process.exitCode = main(process.argv.slice(2));
