/** The parser ships no declarations; its one export, as the tests use it. */
declare module 'parse-prometheus-text-format' {
  /** Parses Prometheus text into families (prom2json's shape); throws on a malformed line. */
  export default function parsePrometheusTextFormat(text: string): unknown[];
}
