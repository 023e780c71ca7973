/** The token of an `Authorization: Bearer <token>` header, or undefined when the header is absent or another scheme. */
export const bearerToken = (authorization: string): string | undefined => /^Bearer\s+(\S+)$/i.exec(authorization)?.[1];
