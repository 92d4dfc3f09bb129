/** Samples this process's resident set size while a worker runs. */
export class RssSampler {
  private timer: NodeJS.Timeout | undefined;
  private peakBytes = 0;
  readonly baselineBytes: number;

  constructor(private readonly intervalMs = 25) {
    this.baselineBytes = process.memoryUsage.rss();
    this.peakBytes = this.baselineBytes;
  }

  start(): this {
    this.timer = setInterval(() => this.sample(), this.intervalMs);
    this.timer.unref();
    return this;
  }

  sample(): void {
    const rss = process.memoryUsage.rss();
    if (rss > this.peakBytes) this.peakBytes = rss;
  }

  stop(): { baselineMb: number; peakMb: number } {
    clearInterval(this.timer);
    this.sample();
    return { baselineMb: toMb(this.baselineBytes), peakMb: toMb(this.peakBytes) };
  }
}

function toMb(bytes: number): number {
  return Math.round((bytes / 1024 / 1024) * 10) / 10;
}
