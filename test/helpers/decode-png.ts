import { inflateSync } from 'node:zlib'

/** A decoded PNG: its size from IHDR and its pixels as RGBA, row after row. */
export interface DecodedPng {
  width: number
  height: number
  rgba: Buffer
}

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])

/**
 * A small PNG reader for the tests (RFC 2083 / the W3C PNG spec): the signature, the IHDR chunk, the IDAT
 * chunks inflated and each scanline's filter undone. It reads what resvg writes: 8-bit RGBA (colour type 6),
 * not interlaced; anything else throws, as a test should.
 */
export function decodePng(png: Buffer): DecodedPng {
  if (!png.subarray(0, 8).equals(SIGNATURE)) throw new Error('not a PNG: the signature is missing')
  let width = 0
  let height = 0
  const data: Buffer[] = []
  for (let at = 8; at < png.length;) {
    const length = png.readUInt32BE(at)
    const type = png.toString('latin1', at + 4, at + 8)
    const body = png.subarray(at + 8, at + 8 + length)
    if (type === 'IHDR') {
      width = body.readUInt32BE(0)
      height = body.readUInt32BE(4)
      const [depth, colour, , , interlace] = [body[8], body[9], body[10], body[11], body[12]]
      if (depth !== 8 || colour !== 6 || interlace !== 0) throw new Error(`unsupported PNG: depth ${depth}, colour type ${colour}, interlace ${interlace}`)
    } else if (type === 'IDAT') data.push(body)
    else if (type === 'IEND') break
    at += 12 + length
  }
  const raw = inflateSync(Buffer.concat(data))
  const stride = width * 4
  const rgba = Buffer.alloc(stride * height)
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1))
    for (let x = 0; x < stride; x++) {
      const left = x >= 4 ? rgba[y * stride + x - 4]! : 0
      const up = y > 0 ? rgba[(y - 1) * stride + x]! : 0
      const upLeft = x >= 4 && y > 0 ? rgba[(y - 1) * stride + x - 4]! : 0
      const predictor = filter === 0 ? 0 : filter === 1 ? left : filter === 2 ? up : filter === 3 ? (left + up) >> 1 : paeth(left, up, upLeft)
      rgba[y * stride + x] = (line[x]! + predictor) & 0xff
    }
  }
  return { width, height, rgba }
}

function paeth(a: number, b: number, c: number): number {
  const p = a + b - c
  const [pa, pb, pc] = [Math.abs(p - a), Math.abs(p - b), Math.abs(p - c)]
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c
}

/** How many pixels are not the white background (opaque and clearly darker than white). */
export function inkedPixels(image: DecodedPng, box = { x: 0, y: 0, width: image.width, height: image.height }): number {
  let n = 0
  for (let y = box.y; y < box.y + box.height; y++) {
    for (let x = box.x; x < box.x + box.width; x++) {
      const i = (y * image.width + x) * 4
      if (image.rgba[i + 3]! > 0 && image.rgba[i]! + image.rgba[i + 1]! + image.rgba[i + 2]! < 3 * 230) n++
    }
  }
  return n
}
