-- AlterTable
ALTER TABLE "EnrollmentToken" ADD COLUMN     "routerId" TEXT;
