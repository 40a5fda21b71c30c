import { createRequire } from 'node:module'
import type { TopLevelSpec } from 'vega-lite'

/** One week of the chart: its label, the p50 of time to first review and to merge (working hours), pull requests merged. */
export interface ChartWeek {
  /** The week as the axis names it, e.g. `Nov 30`. */
  label: string
  firstReview: number | null
  merge: number | null
  merged: number
}

/**
 * The font every label is drawn with, shipped in the `dejavu-fonts-ttf` package: resvg draws text only with a
 * font it was given (its options: "loadSystemFonts?: boolean // Default: true", "fontFiles?: string[] // A list
 * of local font file paths to load", "defaultFontFamily?: string // Default: "", if `loadSystemFonts` is
 * enabled, it will be set to the first font in the list of system fonts"; yisibl/resvg-js index.d.ts). With
 * system fonts off, a machine without any (a slim container) draws the same chart as a desktop.
 */
export const CHART_FONT = { family: 'DejaVu Sans', file: createRequire(import.meta.url).resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf') }

const FIRST_REVIEW = 'Time to first review (p50)'
const MERGE = 'Time to merge (p50)'

/**
 * The weekly summary's chart as a Vega-Lite spec (docs/decisions.md): pull requests merged as bars on the right
 * axis, the p50 of time to first review and to merge as lines on the left one, one point per week. Pure.
 */
export function chartSpec(weeks: readonly ChartWeek[]): TopLevelSpec {
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: { text: 'Review turnaround, week by week', anchor: 'start', fontSize: 14 },
    width: 560,
    height: 240,
    background: 'white',
    padding: 12,
    data: { values: weeks.map((w) => ({ week: w.label, [FIRST_REVIEW]: w.firstReview, [MERGE]: w.merge, merged: w.merged })) },
    encoding: { x: { field: 'week', type: 'ordinal', sort: null, title: 'Week', axis: { labelAngle: 0 } } },
    layer: [
      {
        mark: { type: 'bar', color: '#c9d8ee', width: { band: 0.6 } },
        encoding: { y: { field: 'merged', type: 'quantitative', title: 'Pull requests merged', axis: { orient: 'right', tickMinStep: 1, grid: false } } },
      },
      {
        transform: [{ fold: [FIRST_REVIEW, MERGE], as: ['figure', 'hours'] }],
        mark: { type: 'line', point: { size: 60 }, strokeWidth: 2.5 },
        encoding: {
          y: { field: 'hours', type: 'quantitative', title: 'Working hours' },
          color: { field: 'figure', type: 'nominal', title: null, scale: { domain: [FIRST_REVIEW, MERGE], range: ['#1f6feb', '#d9480f'] }, legend: { orient: 'top', labelLimit: 320 } },
        },
      },
    ],
    resolve: { scale: { y: 'independent' } },
    config: { font: CHART_FONT.family, axis: { labelFontSize: 12, titleFontSize: 12 }, legend: { labelFontSize: 12 } },
  }
}

/** The chart as SVG: Vega-Lite compiled to a Vega spec, rendered headless by Vega (`view.toSVG()`), no canvas, no browser. */
export async function chartSvg(weeks: readonly ChartWeek[]): Promise<string> {
  // Loaded at the first chart: a server without `insights.weekly` never loads them.
  const [vega, vegaLite] = await Promise.all([import('vega'), import('vega-lite')])
  const view = new vega.View(vega.parse(vegaLite.compile(chartSpec(weeks)).spec), { renderer: 'none' })
  try {
    return await view.toSVG()
  } finally {
    view.finalize()
  }
}

/** The chart as PNG bytes, rasterised by resvg at twice its size (sharp on a high-density screen) with the shipped font only. */
export async function renderChart(weeks: readonly ChartWeek[]): Promise<Buffer> {
  const svg = await chartSvg(weeks)
  const { Resvg } = await import('@resvg/resvg-js')
  const image = new Resvg(svg, {
    fitTo: { mode: 'zoom', value: 2 },
    font: { loadSystemFonts: false, fontFiles: [CHART_FONT.file], defaultFontFamily: CHART_FONT.family, sansSerifFamily: CHART_FONT.family },
  })
  return Buffer.from(image.render().asPng())
}
