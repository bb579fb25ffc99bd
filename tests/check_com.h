/*
 * check_com.h - Check assertions for HRESULTs and platform.h registry statuses, printed
 * the way they are looked up: HRESULTs in hex.  They print with %lX and %d, which MinGW's
 * format checking accepts (it rejects the %jd of Check's own integer assertions).
 */
#ifndef JEVMON_TESTS_CHECK_COM_H
#define JEVMON_TESTS_CHECK_COM_H

#include <check.h>

#define ck_assert_hr(expr, expected)                                                                 \
    do {                                                                                             \
        HRESULT ck_hr_ = (expr);                                                                     \
        ck_assert_msg(ck_hr_ == (HRESULT)(expected), "%s is 0x%08lX, expected 0x%08lX (%s)", #expr, \
                      (unsigned long)ck_hr_, (unsigned long)(expected), #expected);                  \
    } while (0)

#define ck_assert_reg(expr, expected)                                                                         \
    do {                                                                                                      \
        plat_reg_status ck_st_ = (expr);                                                                      \
        ck_assert_msg(ck_st_ == (expected), "%s is status %d, expected %d (%s)", #expr, (int)ck_st_,          \
                      (int)(expected), #expected);                                                            \
    } while (0)

#endif /* JEVMON_TESTS_CHECK_COM_H */
