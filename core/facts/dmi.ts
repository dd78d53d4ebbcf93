import type { RouterHost } from '../host/router-host.js';
import { printableLine, readTextFile } from './source.js';

/**
 * SMBIOS/DMI names, the only model information an x86 box has (no device tree). OpenWrt's
 * x86 board detection builds /tmp/sysinfo from the same files; on a plain Linux host this is
 * the sole source.
 */
export async function readDmiModel(host: RouterHost): Promise<{ name: string; source: string } | null> {
  const [vendor, product] = await Promise.all([
    readTextFile(host, '/sys/class/dmi/id/sys_vendor'),
    readTextFile(host, '/sys/class/dmi/id/product_name'),
  ]);
  const productName = product.ok ? printableLine(product.value) : null;
  if (!productName) return null;
  const vendorName = vendor.ok ? printableLine(vendor.value) : null;
  const name = vendorName && !productName.startsWith(vendorName) ? `${vendorName} ${productName}` : productName;
  return { name, source: '/sys/class/dmi/id' };
}
