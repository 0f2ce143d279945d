/**
 * Error answers carry their request's id (`error.requestId`, a UUID, different every time): two
 * answers "with the same body" are the same but for it.
 */
export const withoutRequestId = (body: string): string => body.replace(/,"requestId":"[\w=-]+"/, '');
