/** The start-up check every long-lived consumer of the store runs. */
export interface SchemaCheck {
  /**
   * Fails fast when the database cannot serve this version of Cyclone: `DatabaseUnreachableError`
   * when it cannot be reached, `SchemaNotMigratedError` (naming the missing migrations, saying to
   * run `cyclone migrate`) when it lacks a migration this package ships. Resolves otherwise.
   */
  checkSchema(): Promise<void>;
}
