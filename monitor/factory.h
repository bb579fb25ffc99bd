/* factory.h - jevprof's class factory (factory.c). */
#ifndef JEVPROF_FACTORY_H
#define JEVPROF_FACTORY_H

#include "jevmon.h"

/* The static factory object; QueryInterface it for the interface wanted. */
IClassFactory *jp_factory(void);

#endif /* JEVPROF_FACTORY_H */
