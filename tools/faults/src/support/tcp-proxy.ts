/**
 * A TCP proxy between Cyclone's processes and PostgreSQL, for the faults a kill cannot make: a
 * connection that silently stops forwarding (a dropped NAT entry, a stuck load balancer) and a
 * connection cut right after a given message reached the server (an ambiguous commit).
 */
import { createServer, connect, type Server, type Socket } from 'node:net';

/** One proxied connection. */
export interface ProxiedConnection {
  readonly id: number;
  readonly client: Socket;
  readonly server: Socket;
  readonly openedAt: number;
  /** Whether the client sent a `LISTEN` on it, and when it last did. */
  listens: boolean;
  listenedAt: number | undefined;
  /** Whether it stopped forwarding (both ways), the sockets left open. */
  blackholed: boolean;
  /** Whether it stopped forwarding the server's replies (a cut in progress). */
  repliesDropped: boolean;
}

/** Cuts a connection once the server has been sent a client message containing `marker`. */
interface CutRule {
  readonly marker: string;
  remaining: number;
  readonly onCut: (connection: ProxiedConnection) => void;
}

export class TcpProxy {
  readonly connections: ProxiedConnection[] = [];
  private readonly cutRules: CutRule[] = [];
  private nextId = 1;

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  /** Starts a proxy on a free port of 127.0.0.1 towards `upstreamPort`. */
  static start(upstreamPort: number, upstreamHost = '127.0.0.1'): Promise<TcpProxy> {
    return new Promise((resolve, reject) => {
      let proxy: TcpProxy | undefined;
      const server = createServer((client) => proxy!.accept(client, upstreamHost, upstreamPort));
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => {
        const address = server.address();
        if (typeof address !== 'object' || !address) return reject(new Error('no address'));
        proxy = new TcpProxy(server, address.port);
        resolve(proxy);
      });
    });
  }

  /** `url` (a PostgreSQL URL) pointed at this proxy. */
  urlFor(url: string): string {
    const proxied = new URL(url);
    proxied.hostname = '127.0.0.1';
    proxied.port = String(this.port);
    return proxied.toString();
  }

  private accept(client: Socket, host: string, port: number): void {
    const server = connect(port, host);
    const connection: ProxiedConnection = {
      id: this.nextId++,
      client,
      server,
      openedAt: Date.now(),
      listens: false,
      listenedAt: undefined,
      blackholed: false,
      repliesDropped: false,
    };
    this.connections.push(connection);
    const end = () => {
      client.destroy();
      server.destroy();
    };
    client.on('error', end);
    server.on('error', end);
    client.on('close', end);
    server.on('close', end);
    client.on('data', (chunk: Buffer) => {
      if (connection.blackholed) return;
      const text = chunk.toString('latin1');
      if (text.includes('LISTEN ')) {
        connection.listens = true;
        connection.listenedAt = Date.now();
      }
      server.write(chunk);
      const rule = this.cutRules.find((r) => r.remaining > 0 && text.includes(r.marker));
      if (rule && !connection.repliesDropped) {
        rule.remaining--;
        // The client gets no reply any more; the server gets the rest of what the client sends
        // for a moment (the end of the message sequence), then the end of the stream, and the
        // client's connection is reset.
        connection.repliesDropped = true;
        setTimeout(() => {
          connection.blackholed = true;
          server.end();
          client.destroy();
          rule.onCut(connection);
        }, 20);
      }
    });
    server.on('data', (chunk: Buffer) => {
      if (!connection.blackholed && !connection.repliesDropped) client.write(chunk);
    });
  }

  /** Stops forwarding on every open connection matching `predicate`; returns how many. */
  blackhole(predicate: (connection: ProxiedConnection) => boolean): number {
    let count = 0;
    for (const connection of this.connections) {
      if (!connection.client.destroyed && !connection.blackholed && predicate(connection)) {
        connection.blackholed = true;
        count++;
      }
    }
    return count;
  }

  /**
   * Cuts the next `times` connections that send a message containing `marker`, right after the
   * message was passed on to the server.
   */
  cutAfter(
    marker: string,
    times: number,
    onCut: (connection: ProxiedConnection) => void = () => undefined,
  ): void {
    this.cutRules.push({ marker, remaining: times, onCut });
  }

  /** Open connections matching `predicate`. */
  open(predicate: (connection: ProxiedConnection) => boolean = () => true): ProxiedConnection[] {
    return this.connections.filter((c) => !c.client.destroyed && predicate(c));
  }

  /** Closes the proxy and every connection through it. */
  close(): Promise<void> {
    for (const connection of this.connections) {
      connection.client.destroy();
      connection.server.destroy();
    }
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
