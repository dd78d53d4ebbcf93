/** Text and the command that produced it, or why it could not be had: one section of a diagnostic bundle. */
export interface SectionSource {
  command: string;
  text: string;
  error: string;
}
