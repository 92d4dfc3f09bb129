/**
 * A reader of the tables from outside the engine: it runs one read every few milliseconds on a
 * connection of its own until stopped, and then tells what it saw. The samplers of the flow
 * scenarios (`cap-sampler.ts`, `share-sampler.ts`) say what a read is and what it adds up.
 */
import pg from 'pg';

export abstract class TableSampler<Seen> {
  private readonly client: pg.Client;
  private running = true;
  private loop: Promise<void> | undefined;
  /** Reads done so far. */
  protected samples = 0;

  constructor(
    url: string,
    applicationName: string,
    /** Pause between reads: a read itself takes about a millisecond. */
    private readonly everyMs = 2,
  ) {
    this.client = new pg.Client({ connectionString: url, application_name: applicationName });
  }

  /** One read, added to what was seen. */
  protected abstract read(client: pg.Client): Promise<void>;

  /** What the reads saw, once stopped. */
  protected abstract seen(): Seen;

  async start(): Promise<this> {
    await this.client.connect();
    this.loop = this.sample();
    return this;
  }

  private async sample(): Promise<void> {
    while (this.running) {
      await this.read(this.client);
      this.samples += 1;
      await new Promise((resolve) => setTimeout(resolve, this.everyMs));
    }
  }

  /** Stops sampling and resolves with what was seen. */
  async stop(): Promise<Seen> {
    this.running = false;
    await this.loop;
    await this.client.end();
    return this.seen();
  }
}
