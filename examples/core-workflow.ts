import { workflow, OnDepFailure } from '@cyclone/core';

export const order = workflow('order')
  .task('charge', 'payments.charge', { maxAttempts: 5, timeout: '30s' })
  .task('reserve', 'stock.reserve', { dependsOn: ['charge'] })
  .task('gift-wrap', 'orders.gift-wrap', { dependsOn: ['reserve'] })
  .task('ship', 'shipping.ship', {
    dependsOn: ['gift-wrap'],
    onDepFailure: OnDepFailure.CancelBranch,
  })
  .task('receipt', 'email.receipt', { dependsOn: ['charge'] })
  .build();

console.log(order.hash); // stable across processes: the same definition, the same hash
