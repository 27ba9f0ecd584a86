/* One function, tpwalk(cb, arg): calls cb(arg) from a frame of TPWALK_FRAME bytes below its
 * return address. Built twice, with 8 and 24: the two libraries have the same code size and the
 * call's return address at the same offset, only the CFA rule there differs (rsp + 16 or
 * rsp + 32). Loaded one after the other at the same address, they tell a walker that dropped a
 * dlclosed library's rules from one that kept them (tests/check_unwind.c). Written in assembly so
 * that the compiler cannot make the two differ in anything else. */
#ifndef TPWALK_FRAME
#error "build with -DTPWALK_FRAME=8 or 24"
#endif
#define STR2(x) #x
#define STR(x) STR2(x)

__asm__(".text\n"
        ".globl tpwalk\n"
        ".type tpwalk, @function\n"
        "tpwalk:\n"
        ".cfi_startproc\n"
        "sub $" STR(TPWALK_FRAME) ", %rsp\n"
        ".cfi_adjust_cfa_offset " STR(TPWALK_FRAME) "\n"
        "mov %rdi, %rax\n"
        "mov %rsi, %rdi\n"
        "call *%rax\n"
        "add $" STR(TPWALK_FRAME) ", %rsp\n"
        ".cfi_adjust_cfa_offset -" STR(TPWALK_FRAME) "\n"
        "ret\n"
        ".cfi_endproc\n"
        ".size tpwalk, .-tpwalk\n");
