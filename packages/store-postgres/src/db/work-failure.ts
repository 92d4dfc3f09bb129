/**
 * What the application's code threw inside an operation of the store that runs it (a
 * transactional completion's work), carried past the store's error mapping so that the caller
 * gets it unchanged rather than as a store error.
 */
export class WorkFailure extends Error {
  constructor(readonly error: unknown) {
    super('the work inside the transaction failed');
  }
}
