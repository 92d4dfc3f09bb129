/**
 * Reads one sample of a Prometheus text exposition: the value of the line `series` (a name with
 * its labels as prom-client writes them, e.g. `cyclone_steps_claimed_total{kind="a"}`), or
 * undefined when there is no such line.
 */
export function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}
