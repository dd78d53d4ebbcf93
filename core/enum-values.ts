/**
 * Every value of one of the API's enums, in the order a client offers them. The server's list is
 * the one source (the OpenAPI types are generated from it); a client (the console's menus, the
 * CLI's verbs) needs the values at run time, so it lists them too, and a value the API lacks, or
 * one it has that is missing here, fails to type-check. Pure: the console's browser code imports it.
 */
export const everyValueOf =
  <T extends string>() =>
  <const U extends readonly T[]>(
    values: U & ([T] extends [U[number]] ? unknown : { missing: Exclude<T, U[number]> }),
  ) =>
    values as U;
