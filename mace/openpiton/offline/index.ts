/**
 * The offline OpenPiton: a checkout whose `sims` is a calibrated model of OpenPiton and Verilator
 * 5.006, driven through the same adapter code path as a real checkout. See README.md beside this
 * file for every rule the model follows and the evidence behind it.
 */
export {
  initOfflineCheckout,
  checkoutBackend,
  checkoutModelVersion,
  checkoutSpeed,
  OfflineCheckoutError,
  type OfflineCheckout,
  type OfflineCheckoutOptions,
} from './checkout.ts';
export { defaultOfflineRoots, maceHome, type OfflineRootsOptions } from './roots.ts';
export { modelVersion } from './bundle.ts';
export { DEFAULT_SETTINGS, type ModelSettings } from './sims/runtime.ts';
export { VERILATOR_VERSION_TEXT } from './model/constants.ts';
export { loadCalibrationTable, CALIBRATION_CSV, CALIBRATION_DIAGS, type CalibrationRow } from './calibration/table.ts';
export {
  calibrate,
  measureOverhead,
  MIN_SCALED_SECONDS,
  summarise,
  type CalibrationSummary,
  type CalibrationWorkspace,
  type RowReport,
} from './calibration/calibrate.ts';
