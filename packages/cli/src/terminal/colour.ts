import type { Output } from './output.js';

/**
 * Whether to colour what goes to `output`: only on a terminal, and never when `NO_COLOR` is set to
 * anything but the empty string (https://no-color.org).
 */
export function colourEnabled(output: Output, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  return output.colour ?? output.isTTY;
}
