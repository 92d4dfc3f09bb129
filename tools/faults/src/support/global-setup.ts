/** Vitest global setup of the suite: bundles the fixture scripts once per run. */
import { bundleFixtures } from './fixture-bundle.js';

export default async function setup(): Promise<void> {
  await bundleFixtures();
}
