/** Text safe inside HTML text and quoted attributes (the five characters that could end or open markup). */
export const escape = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
