// Validates .glb files with the Khronos glTF validator (npm `gltf-validator`) and prints one
// JSON line per file: {"file", "errors", "warnings", "infos", "messages": [...]}. Exits 1 when
// any file has an error or a warning, 2 when the validator cannot be loaded.
//
//   NODE_PATH=build/npm/node_modules node tests/cli/validate_gltf.mjs a.glb b.glb
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import path from 'node:path';

const require = createRequire(path.join(process.env.NODE_PATH ?? '.', 'noop.js'));
let validator;
try {
  validator = require('gltf-validator');
} catch (e) {
  console.error(`gltf-validator not found under NODE_PATH=${process.env.NODE_PATH}: ${e.message}`);
  process.exit(2);
}

let failed = false;
for (const file of process.argv.slice(2)) {
  const report = await validator.validateBytes(new Uint8Array(readFileSync(file)), {
    uri: path.basename(file),
    maxIssues: 100,
  });
  const { numErrors, numWarnings, numInfos, messages } = report.issues;
  console.log(JSON.stringify({
    file, errors: numErrors, warnings: numWarnings, infos: numInfos,
    messages: messages.map((m) => `${m.severity} ${m.code} ${m.pointer ?? ''}: ${m.message}`),
  }));
  failed ||= numErrors > 0 || numWarnings > 0;
}
process.exit(failed ? 1 : 0);
