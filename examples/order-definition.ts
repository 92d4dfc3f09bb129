// The order workflow of the worker's and the client's examples: one module both import, so the
// definition the client submits and the one the worker serves are the same.
import { z } from 'zod';
import { typed, workflow } from '@cyclone/core';

export const order = workflow('order', { input: z.object({ orderId: z.number().int() }) })
  .task('charge', 'payments.charge', {
    maxAttempts: 5,
    timeout: '30s',
    output: typed<{ chargeId: string }>(),
  })
  .task('ship', 'shipping.ship', {
    dependsOn: ['charge'],
    output: typed<{ chargeId: string; trackingId: string }>(),
  })
  .build();
