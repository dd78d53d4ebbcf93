/**
 * The subset of pino's API storage logs through (a pino Logger fits). Its own module: the database
 * and its availability watch both log, and neither may import the other.
 */
export interface StorageLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  debug(obj: object, msg?: string): void;
}
