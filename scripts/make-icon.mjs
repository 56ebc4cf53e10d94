// Writes images/icon.png, the 128×128 extension icon: a lens over a "T" (TOON) on a dark rounded square.
// Drawn procedurally (4×4 supersampling) and encoded as PNG with node:zlib, so it can be regenerated anywhere:
//   node scripts/make-icon.mjs
import { writeFileSync } from 'node:fs';
import { deflateSync } from 'node:zlib';

const N = 128;
const S = 4; // samples per pixel per axis

const BG = [30, 42, 58];
const LENS = [45, 212, 191];
const GLYPH = [248, 250, 252];

/** Colour (or null: transparent) at a point in icon coordinates. */
function shade(x, y) {
  // Rounded square, radius 24.
  const r = 24;
  const cx = Math.min(Math.max(x, r), N - r);
  const cy = Math.min(Math.max(y, r), N - r);
  if ((x - cx) ** 2 + (y - cy) ** 2 > r * r) return null;
  const lx = 56;
  const ly = 54;
  const d = Math.hypot(x - lx, y - ly);
  // Handle: a thick segment from the ring towards the bottom right.
  const t = ((x - lx) + (y - ly)) / 2;
  const off = Math.abs((x - lx) - (y - ly)) / Math.SQRT2;
  if (t > 30 && t < 58 && off < 7) return LENS;
  if (d >= 33 && d <= 43) return LENS;
  // The "T" inside the lens.
  if (y >= 36 && y <= 44 && x >= 40 && x <= 72) return GLYPH;
  if (x >= 52 && x <= 60 && y >= 36 && y <= 72) return GLYPH;
  return BG;
}

const raw = Buffer.alloc(N * (N * 4 + 1));
for (let py = 0; py < N; py++) {
  raw[py * (N * 4 + 1)] = 0; // filter: none
  for (let px = 0; px < N; px++) {
    let r = 0, g = 0, b = 0, a = 0;
    for (let sy = 0; sy < S; sy++) {
      for (let sx = 0; sx < S; sx++) {
        const c = shade(px + (sx + 0.5) / S, py + (sy + 0.5) / S);
        if (!c) continue;
        r += c[0]; g += c[1]; b += c[2]; a++;
      }
    }
    const o = py * (N * 4 + 1) + 1 + px * 4;
    raw[o] = a ? Math.round(r / a) : 0;
    raw[o + 1] = a ? Math.round(g / a) : 0;
    raw[o + 2] = a ? Math.round(b / a) : 0;
    raw[o + 3] = Math.round((255 * a) / (S * S));
  }
}

const crcTable = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(buf) {
  let c = 0xffffffff;
  for (const byte of buf) c = crcTable[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function chunk(type, data) {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}
const ihdr = Buffer.alloc(13);
ihdr.writeUInt32BE(N, 0);
ihdr.writeUInt32BE(N, 4);
ihdr[8] = 8; // bit depth
ihdr[9] = 6; // RGBA
const png = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  chunk('IHDR', ihdr),
  chunk('IDAT', deflateSync(raw, { level: 9 })),
  chunk('IEND', Buffer.alloc(0)),
]);
writeFileSync(new URL('../images/icon.png', import.meta.url), png);
console.log(`images/icon.png: ${N}×${N}, ${png.length} bytes`);
