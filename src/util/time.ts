/** A timestamp column on the wire: RFC 3339, or null when unset. */
export const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);
