// runtime-name-{gxx,clangxx}: a call site's name must be a constant. With
// -DRUNTIME_NAME_IN_PROF_SCOPE this file must NOT compile (a C++ site
// initialised from a run-time string would keep the first call's pointer);
// without it, the same name through PROF_SCOPE_DYN must compile.
#include "prof.h"
#include <string>

void runtime_name(const std::string &s);
void runtime_name(const std::string &s) {
#ifdef RUNTIME_NAME_IN_PROF_SCOPE
    PROF_SCOPE(s.c_str());
#else
    PROF_SCOPE_DYN(s.c_str());
#endif
}
