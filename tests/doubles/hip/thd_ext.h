/*
 * thd_ext.h - what the libamdhip64 test double exports beyond the HIP API
 * (the real runtime has none of it): the count of launches that ran
 * nothing because their kernel has no host twin.  The HIP replay backend
 * looks it up with dlsym to tell "the double ran nothing" from a
 * divergence, as the CUDA backend does with its double.
 */
#ifndef THD_EXT_H
#define THD_EXT_H

#define THD_NOT_RUN_SYMBOL "tship_double_launches_not_run"
unsigned long long tship_double_launches_not_run(void);

#endif /* THD_EXT_H */
