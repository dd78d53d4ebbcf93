/** Every value of a Prisma enum, in the schema's order: the database's list is the one source. */
export const prismaEnumValues = <T extends Record<string, string>>(prismaEnum: T) =>
  Object.values(prismaEnum) as T[keyof T][];
