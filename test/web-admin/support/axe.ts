import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface AxeViolation {
  id: string;
  impact: 'minor' | 'moderate' | 'serious' | 'critical' | null;
  help: string;
  nodes: { target: string[]; failureSummary?: string }[];
}

/**
 * Runs axe-core on the page as it is now, in the light and the dark theme (contrast differs),
 * and returns the serious and critical violations as readable lines (empty when there are
 * none). axe is evaluated through the DevTools protocol, so the console's CSP stays as strict
 * as it is in production.
 */
export async function seriousAccessibilityViolations(page: Page): Promise<string[]> {
  const lines: string[] = [];
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    await page.evaluate(axeSource);
    const violations = await page.evaluate(async () => {
      const axe = (
        window as unknown as { axe: { run(context: Document, options: object): Promise<{ violations: unknown[] }> } }
      ).axe;
      const result = await axe.run(document, { resultTypes: ['violations'] });
      return result.violations;
    });
    for (const v of violations as AxeViolation[]) {
      if (v.impact !== 'serious' && v.impact !== 'critical') continue;
      const where = v.nodes
        .slice(0, 5)
        .map((n) => n.target.join(' '))
        .join(', ');
      lines.push(`[${colorScheme}] ${v.impact} ${v.id}: ${v.help} (${where})`);
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  return lines;
}
