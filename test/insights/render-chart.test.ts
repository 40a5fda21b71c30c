import { describe, expect, it } from 'vitest'
import { Resvg } from '@resvg/resvg-js'
import { chartSvg, renderChart, type ChartWeek } from '../../src/insights/render-chart.ts'
import { decodePng, inkedPixels } from '../helpers/decode-png.ts'

/**
 * The weekly chart is a real PNG a person can look at: decoded here (signature, IHDR size, pixels), not blank,
 * with its lines in their colours, and its labels drawn with the shipped font whatever fonts the machine has
 * (system fonts are never loaded, so this machine's fonts cannot make the test pass).
 */
const WEEKS: ChartWeek[] = [
  { label: 'Nov 2', firstReview: 5.2, merge: 20.1, merged: 7 },
  { label: 'Nov 9', firstReview: 3.1, merge: 14, merged: 11 },
  { label: 'Nov 16', firstReview: null, merge: 30, merged: 4 },
  { label: 'Nov 23', firstReview: 2.5, merge: 11.5, merged: 9 },
  { label: 'Nov 30', firstReview: 1.5, merge: 9, merged: 12 },
]

/** Pixels close to an RGB colour (the lines' colours, anti-aliasing aside). */
function pixelsNear(image: ReturnType<typeof decodePng>, [r, g, b]: [number, number, number]): number {
  let n = 0
  for (let i = 0; i < image.rgba.length; i += 4) {
    if (Math.abs(image.rgba[i]! - r) + Math.abs(image.rgba[i + 1]! - g) + Math.abs(image.rgba[i + 2]! - b) < 30) n++
  }
  return n
}

describe('the weekly chart', () => {
  it('is a PNG of the chart\'s size, not blank, with both lines and the bars in their colours', async () => {
    const png = await renderChart(WEEKS)
    const image = decodePng(png)
    // Vega's view with its padding, rasterised at twice its size.
    expect(image.width).toBeGreaterThan(1000)
    expect(image.width).toBeLessThan(1600)
    expect(image.height).toBeGreaterThan(500)
    expect(image.height).toBeLessThan(900)
    const inked = inkedPixels(image)
    expect(inked).toBeGreaterThan(image.width * image.height * 0.05)
    // Each line's colour well beyond its legend dot's (about 400 pixels).
    expect(pixelsNear(image, [0x1f, 0x6f, 0xeb])).toBeGreaterThan(1500) // time to first review
    expect(pixelsNear(image, [0xd9, 0x48, 0x0f])).toBeGreaterThan(1500) // time to merge
    expect(pixelsNear(image, [0xc9, 0xd8, 0xee])).toBeGreaterThan(10_000) // the bars
  })

  it('draws its labels with the shipped font: without it, the same SVG has no text', async () => {
    const svg = await chartSvg(WEEKS)
    expect(svg).toContain('Time to first review (p50)')
    expect(svg).toContain('Pull requests merged')
    const withFont = decodePng(await renderChart(WEEKS))
    const fontless = decodePng(Buffer.from(new Resvg(svg, { fitTo: { mode: 'zoom', value: 2 }, font: { loadSystemFonts: false } }).render().asPng()))
    expect(fontless.width).toBe(withFont.width)
    // The title's strip at the top holds only text: ink with the font, none without.
    const titleStrip = { x: 0, y: 0, width: withFont.width, height: 60 }
    expect(inkedPixels(fontless, titleStrip)).toBe(0)
    expect(inkedPixels(withFont, titleStrip)).toBeGreaterThan(1000)
  })

  it('draws an empty history (no pull request in five weeks) as axes without points, not a failure', async () => {
    const empty = WEEKS.map((w) => ({ ...w, firstReview: null, merge: null, merged: 0 }))
    const image = decodePng(await renderChart(empty))
    expect(pixelsNear(image, [0xd9, 0x48, 0x0f])).toBeLessThan(600) // only the legend's dot
    expect(pixelsNear(image, [0xc9, 0xd8, 0xee])).toBe(0) // no bar
    expect(inkedPixels(image)).toBeGreaterThan(1000)
  })
})
