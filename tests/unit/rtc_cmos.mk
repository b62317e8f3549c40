UNIT_TESTS += rtc_cmos
UNIT_SRCS_rtc_cmos := tests/unit/test_rtc_cmos.c hv/vdev/rtc_cmos.c
